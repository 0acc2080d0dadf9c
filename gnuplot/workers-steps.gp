# workers-steps.gp: per step, the imbalance between ranks and which rank was slowest.
# Columns: step, slowest_worker, total_max_s, total_median_s, imbalance, generation_imbalance.
# The barrier evens out the totals; generation time shows the straggler.
set xlabel 'step'
set ylabel 'imbalance (slowest / median)'
set y2label 'slowest worker (rank)'
set ytics nomirror
set y2tics
set autoscale xfix
set offsets 0.5, 0.5, 0, 0
{{XTICS}}
set key below
plot data using 1:5 with linespoints pt 7 ps 0.6 lw 2 lc 1 title 'total_step_duration', \
     data using 1:6 with linespoints pt 5 ps 0.6 lw 2 lc 4 title 'async_generate_duration', \
     data using 1:2 axes x1y2 with points pt 6 ps 1 lc 2 title 'slowest worker'
