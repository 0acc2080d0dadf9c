# turns.gp: per turn index, the mean time of each part of a turn (top, log scale) and how many
# turn records there are (bottom). Columns: turn, count, pre_process, engine_call, post_process,
# tool_parsing, total (means in s).
set multiplot layout 2,1 margins 0.08, 0.80, 0.1, 0.9 spacing 0, 0.08
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.9 noborder
set boxwidth 0.9 relative
set ylabel 'mean time (s, log scale)'
set logscale y
set format y '%g'
set key outside right top
set xtics format ''
plot for [c=3:7] data using c:xtic(int($0) % {{EVERY}} == 0 ? stringcolumn(1) : '') title columnhead(c)
unset logscale y
unset title
set format y '%g'
set ylabel 'turn records'
set xlabel 'turn index (0-based)'
set yrange [0:*]
plot data using 2:xtic(int($0) % {{EVERY}} == 0 ? stringcolumn(1) : '') lc rgb '#7f7f7f' title 'count'
unset multiplot
