# compare-throughput.gp: per step, complete requests (top) and response tokens (bottom) per second
# of rollout, one colour per experiment. Data: compare_steps.tsv.
set multiplot layout 2,1 margins 0.1, 0.97, 0.1, 0.9 spacing 0, 0.08
set autoscale xfix
set offsets 0.5, 0.5, 0, 0
{{XTICS}}
set yrange [0:*]
set ylabel 'complete requests / rollout s'
set key below
{{TOP}}
unset title
set xlabel {{XLABEL}}
set ylabel 'response tokens / rollout s'
{{BOTTOM}}
unset multiplot
