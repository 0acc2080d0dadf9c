# turn-dist-counts.gp: per step, how many requests took 1, 2, 3... turns (stacked).
# Columns: step, then the request count for each number of turns (then train_step, with --train).
set xlabel 'step'
set ylabel 'requests'
set yrange [0:*]
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 noborder
set boxwidth 0.8 relative
set key outside right top title 'turns'
{{TICLABEL}}
plot for [c=2:{{LASTCOL}}] data using c:xtic(int($0) % {{EVERY}} == 0 ? stringcolumn({{TICCOL}}) : '') title columnhead(c)
