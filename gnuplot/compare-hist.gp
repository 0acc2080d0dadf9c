# compare-hist.gp: request durations in logarithmic bins, one panel per experiment on a shared
# x axis. Data: compare_hist.tsv (low_s, high_s, then each experiment's share of its requests, %).
set multiplot layout {{PANELS}},1 margins 0.08, 0.97, 0.08, 0.92 spacing 0, 0.02
set logscale x
{{XRANGE}}
set format x ''
set ylabel '% of requests'
{{PLOTS}}
unset multiplot
