# train-breakdown.gp: per training step, the timing_s/ sections stacked, timing_s/step as points.
# Columns: step, the sections (s), then timing_s/step (s; NaN when the log has none).
set xlabel 'training step'
set ylabel 'time (s)'
set yrange [*<0:*]   # from 0, lower only for negative values
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 noborder
set boxwidth 0.8 relative
set key outside right top
plot for [c=2:{{LASTCOL}}] data using c:xtic(int($0) % {{EVERY}} == 0 ? stringcolumn(1) : '') title columnhead(c), \
     data using 0:{{STEPCOL}} with points pt 7 ps 0.8 lc rgb 'black' title 'timing_s/step'
