# events-pct.gp: per step, each step-level section's share of the step (mean over workers of the
# section / mean over workers of total_step_duration). Columns: step, total_mean_s, shares (%).
set xlabel 'step'
set ylabel 'share of the step (%)'
set yrange [0:*]
set autoscale xfix
set offsets 0.5, 0.5, 0, 0
{{XTICS}}
set key outside right top title 'section'
plot for [c=3:{{LASTCOL}}] data using 1:c with linespoints pt 7 ps 0.6 title columnhead(c)
