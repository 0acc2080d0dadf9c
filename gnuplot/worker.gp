# worker.gp: one worker's step-level sections in one step (log scale: they span milliseconds to minutes).
# Columns: section, seconds.
set xlabel 'section'
set ylabel 'time (s, log scale)'
set logscale y
set format y '%g'
set style fill solid 0.9 noborder
set boxwidth 0.7
set xtics rotate by 35 right
set bmargin 9
unset key
plot data using 0:2:xtic(1) with boxes lc {{COLOR}}, \
     data using 0:2:(sprintf('%.3g', $2)) with labels offset 0,0.7 font ',9' notitle
