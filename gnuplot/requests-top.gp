# requests-top.gp: the slowest requests of a step side by side, their time split into
# phases that do not overlap; "other" is the rest of the request (queueing, scheduling).
set xlabel 'request (slowest first)'
set ylabel 'time (s)'
set yrange [0:*]
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 noborder
set boxwidth 0.75 relative
set key outside right top title 'phase'
set xtics rotate by 30 right
set bmargin 8
plot for [c=2:{{LASTCOL}}] data using c:xtic(1) title columnhead(c)
