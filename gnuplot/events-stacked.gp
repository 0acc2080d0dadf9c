# events-stacked.gp: the same shares stacked, so the whole step and what is left over show at once.
# Columns: step, total_mean_s, shares (%).
set xlabel 'step'
set ylabel 'share of the step (%, stacked)'
set yrange [0:105]
set autoscale xfix
{{XTICS}}
set style fill solid 0.85 noborder
set key outside right top title 'section'
{{PLOT}}
