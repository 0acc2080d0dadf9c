# compare-bars.gp: grouped bars, one group per row (number of turns, section) and one bar per
# experiment. Data: the group's name, then one column per experiment.
set xlabel {{XLABEL}}
set ylabel {{YLABEL}}
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 noborder
set key top right
{{ROTATE}}
{{PLOT}}
