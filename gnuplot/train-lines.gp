# train-lines.gp: trainer metrics over steps, one line each (from the trainer's console log).
# Columns: step, then one metric per column (NaN where a step lacks it).
set xlabel 'training step'
set ylabel {{YLABEL}}
set yrange [*<0:*]   # from 0, lower only for negative values
set autoscale xfix
set key outside right top
{{EXTRA}}
plot for [c=2:{{LASTCOL}}] data using 1:c with linespoints pt 7 ps 0.5 lw 2 title columnhead(c)
