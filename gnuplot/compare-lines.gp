# compare-lines.gp: one line per experiment over the first column (compare_turns: the mean engine
# time per turn index). Data: x, then one column per experiment.
set xlabel {{XLABEL}}
set ylabel {{YLABEL}}
set yrange [0:*]
set autoscale xfix
set offsets 0.3, 0.3, 0, 0
set xtics 1
set key top left
{{ROTATE}}
{{PLOT}}
