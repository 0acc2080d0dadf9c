# compare-cdf.gp: the request-duration CDF of each experiment overlaid, its P50/P90/P99 as dots.
# Data: per experiment a block (duration in s, fraction of requests <= it), then a block of its
# three percentiles (value, 0.5 / 0.9 / 0.99).
set xlabel 'request duration (s, log scale)'
set ylabel 'fraction of requests <= x'
set yrange [0:1.02]
set ytics 0.1
set logscale x
set autoscale xfix
set format x '%g'
set key bottom right box opaque noautotitle
# the three levels the dots sit on
set arrow from graph 0, first 0.5 to graph 1, first 0.5 nohead dt 3 lc rgb '#aaaaaa' back
set arrow from graph 0, first 0.9 to graph 1, first 0.9 nohead dt 3 lc rgb '#aaaaaa' back
set arrow from graph 0, first 0.99 to graph 1, first 0.99 nohead dt 3 lc rgb '#aaaaaa' back
{{PLOT}}
