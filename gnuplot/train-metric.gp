# train-metric.gp: one metric over steps with its moving mean.
# Columns: step, value, moving mean over the window.
set xlabel 'training step'
set ylabel {{YLABEL}}
set autoscale xfix
set key top left
plot data using 1:2 with points pt 7 ps 0.5 lc rgb '#9ecae1' title 'value', \
     data using 1:3 with lines lw 2.5 lc 1 title {{WINDOW}}
