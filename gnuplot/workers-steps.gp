# workers-steps.gp: per step, the straggler (the rank the others wait for) and the imbalance.
# Columns: step, slowest_worker, generation_max_s, generation_median_s, imbalance,
# total_max_s, total_median_s, total_imbalance.
# The barrier evens out the totals, so the imbalance is that of generation time.
set xlabel 'step'
set ylabel 'imbalance (straggler / median rank)'
set y2label 'straggler (rank)'
set ytics nomirror
set y2tics
set y2range [-0.5:*]
set autoscale xfix
set offsets 0.5, 0.5, 0, 0
{{XTICS}}
set key below height 1
plot data using 1:5 with linespoints pt 7 ps 0.6 lw 2 lc 1 title 'generation (async_generate_duration)', \
     data using 1:8 with linespoints pt 5 ps 0.6 lw 2 lc 4 title 'total_step_duration', \
     data using 1:2 axes x1y2 with points pt 6 ps 1 lc 2 title 'straggler'
