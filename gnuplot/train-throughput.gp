# train-throughput.gp: perf/throughput over steps with its mean (top), the time per step and its
# mean below.
# Columns: step, perf/throughput, timing_s/step. STEP_PANEL is 0 when timing_s/step has no value.
set multiplot layout 1 + {{STEP_PANEL}},1 margins 0.1, 0.95, 0.1, 0.9 spacing 0, 0.1
set autoscale xfix
set ylabel 'throughput (tokens/s)'
set key top right
{{MEANLINE}}
if (!{{STEP_PANEL}}) set xlabel 'training step'
plot data using 1:2 with linespoints pt 7 ps 0.5 lw 2 title 'perf/throughput'
if ({{STEP_PANEL}}) {
  unset title
  unset arrow
  unset label 1
  {{STEP_MEANLINE}}
  set xlabel 'training step'
  set ylabel 'time per step (s)'
  plot data using 1:3 with linespoints pt 7 ps 0.5 lw 2 lc 2 title 'timing_s/step'
}
unset multiplot
