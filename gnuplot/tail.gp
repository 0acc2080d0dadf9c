# tail.gp: per step, the tail's excess over the bulk by cause, stacked (positive parts up, negative
# down: they sum to the excess duration plus launch), above the bubble (rank-time idle before the
# last request ended). Data: tail_steps.tsv (10 launch, 11 extra turns, 12 slower turns, 13 tool,
# 14 other, 15 duration: drawn alone where the step is not attributed, 8 bubble).
set multiplot layout 2,1 margins 0.1, 0.8, 0.1, 0.9 spacing 0, 0.08
set autoscale xfix
set offsets 0.5, 0.5, 0, 0
{{XTICS}}
set boxwidth 0.7 relative
set style fill solid 0.9 noborder
set xzeroaxis lt -1
set key outside right top title 'cause' noautotitle
set ylabel "tail's excess over the bulk (s)"
v(c) = valid(c) ? column(c) : 0
att = 'valid(11)'
# the parts, in the order of the stack: launch, extra turns, slower turns, tool, other, duration
p(c) = (c == 15 ? (valid(11) ? 0 : v(15)) : v(c))
up(c) = (p(c) > 0 ? p(c) : 0)
dn(c) = (p(c) < 0 ? p(c) : 0)
su(n) = up(10) + (n > 1 ? up(11) : 0) + (n > 2 ? up(12) : 0) + (n > 3 ? up(13) : 0) + (n > 4 ? up(14) : 0) + (n > 5 ? up(15) : 0)
sd(n) = dn(10) + (n > 1 ? dn(11) : 0) + (n > 2 ? dn(12) : 0) + (n > 3 ? dn(13) : 0) + (n > 4 ? dn(14) : 0) + (n > 5 ? dn(15) : 0)
plot for [n=6:1:-1] data using 1:(su(n)) with boxes lc (n == 6 ? 8 : n) \
       title (n == 1 ? 'launch' : n == 2 ? 'extra turns' : n == 3 ? 'slower turns' : n == 4 ? 'tool' : n == 5 ? 'other' : 'duration (not attributed)'), \
     for [n=6:1:-1] data using 1:(sd(n)) with boxes lc (n == 6 ? 8 : n) notitle
unset title
set xlabel 'step'
unset key
set ylabel 'bubble (% of rank-time)'
set yrange [0:*]
plot data using 1:(100 * column(8)) with boxes lc rgb '#7f7f7f' notitle
unset multiplot
