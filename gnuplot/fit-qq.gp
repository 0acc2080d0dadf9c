# fit-qq.gp: quantile-quantile plot of durations against the distribution fitted best to them.
# Data: one block per sample (the fit's quantile at (i - 1/2)/n in s, the i-th value in s).
set xlabel 'quantile of the best fit (s, log scale)'
set ylabel 'quantile of the data (s, log scale)'
set logscale xy
set format x '%g'
set format y '%g'
set key top left box opaque noautotitle
{{PLOT}}
