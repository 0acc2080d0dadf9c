# request.gp: one request's time per phase (sum of the durations of the lines carrying its id).
# Columns: phase, seconds. Phases overlap (a turn holds its engine call), so they do not add up.
set xlabel 'phase'
set ylabel 'time (s, log scale)'
set logscale y
set format y '%g'
set style fill solid 0.9 noborder
set boxwidth 0.7
set xtics rotate by 35 right
set bmargin 10
unset key
plot data using 0:2:xtic(1) with boxes lc 1, \
     data using 0:2:(sprintf('%.3g', $2)) with labels offset 0,0.7 font ',9' notitle
