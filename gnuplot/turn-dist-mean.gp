# turn-dist-mean.gp: per step, the mean duration of the requests that took N turns, a line per N.
# Columns: step, then the mean duration (s) for each number of turns (NaN where none).
set xlabel 'step'
set ylabel 'mean request duration (s)'
set yrange [0:*]
set autoscale xfix
set offsets 0.5, 0.5, 0, 0
{{XTICS}}
set key outside right top title 'turns'
plot for [c=2:{{LASTCOL}}] data using 1:c with linespoints pt 7 ps 0.7 title columnhead(c)
