# compare-steps.gp: per step, each experiment's rollout time (slowest rank, solid) and step
# interval (dashed), one colour per experiment. Data: compare_steps.tsv (step, rollout_s_1..n,
# interval_s_1..n, ...).
set xlabel {{XLABEL}}
set ylabel 'time (s)'
set yrange [0:*]
set autoscale xfix
set offsets 0.5, 0.5, 0, 0
{{XTICS}}
set key below
{{PLOT}}
