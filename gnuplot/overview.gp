# overview.gp: per step, rollout time (slowest rank) stacked under the time outside rollout.
# Columns: step, rollout_s, interval_s, outside_s, rollout_outlier, interval_outlier,
# and the trainer's timing_s/step and timing_s/gen (NaN without --train).
set xlabel 'step'
set ylabel 'time (s)'
set yrange [0:*]
set autoscale xfix
set offsets 0.5, 0.5, 0, 0
{{XTICS}}
set key at graph 1.02, graph 0.5 left top Left reverse samplen 2   # under the means, clear of the x label
set rmargin 38
set boxwidth 0.75 absolute   # one width, whatever the gaps (validation folders leave some)
set style fill solid 0.9 noborder
set label 1 {{MEANS}} at graph 1.02, graph 0.98 left front
# the interval box drawn first, the rollout box over it: the grey part is the time outside rollout
plot data using 1:3 with boxes lc rgb '#c8c8c8' title 'outside rollout (training, sync)', \
     data using 1:2 with boxes lc 1 title 'rollout (slowest rank)'{{OUTLIERS}}{{TRAIN}}
