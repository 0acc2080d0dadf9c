# cdf.gp: cumulative distribution of durations, with percentile markers and a stats box.
# Data: one block per series (duration in s, fraction of values <= it).
set xlabel {{XLABEL}}
set ylabel 'fraction of values <= x'
set yrange [0:1.02]
set ytics 0.1
set logscale x
set autoscale xfix
set format x '%g'
set key top left box opaque noautotitle
set style textbox opaque border lc rgb '#999999'
{{MARKERS}}
{{PLOT}}
