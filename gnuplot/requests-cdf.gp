# requests-cdf.gp: CDF of the request durations of one step (and worker).
# Columns: duration (s), fraction of requests that took at most that long.
set xlabel 'request duration (s, log scale)'
set ylabel 'fraction of requests <= x'
set yrange [0:1.02]
set ytics 0.1
set logscale x
set autoscale xfix
set format x '%g'
set key noautotitle
set style textbox opaque border lc rgb '#999999'
{{MARKERS}}
plot data using 1:2 with steps lw 2.5 lc 1
