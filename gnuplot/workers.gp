# workers.gp: every worker's step-level sections stacked side by side; the straggler is the critical path.
# Columns: worker, the eleven sections in logger order (s), total_step_duration (s).
set xlabel 'worker (rank)'
set ylabel 'time in the step (s)'
set yrange [0:*]
set xrange [{{XRANGE}}]
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 noborder
set boxwidth 0.8 relative
set key outside right top title 'section'
set xtics rotate by 0 nomirror
{{MARKS}}
plot for [c=2:12] data using c:xtic(int($0) % {{EVERY}} == 0 ? stringcolumn(1) : '') title columnhead(c), \
     data using 0:13 with points pt 2 ps 1.2 lc rgb 'black' title 'total_step_duration'
