# whatif.gp: each step's recorded rollout (black) against the rollout each policy predicts
# (rt-whatif), and the share of the step's requests each policy cuts (dashed, right axis).
# Data: step, recorded_s, then per policy its predicted_s and cut share (%).
set xlabel 'step'
set ylabel 'rollout (s)'
set y2label 'requests cut (%)'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set autoscale xfix
set offsets 0.5, 0.5, graph 0.08, 0   # room above the recorded line: a cut share at its axis top stays apart
{{XTICS}}
set key below
{{PLOT}}
