# request.gp: one request's time per phase (the sum of the durations of the lines carrying its id),
# each phase under the phase that holds its lines, indented: a phase holds those below it, so
# the bars do not add up. Columns: phase, seconds, depth, inside.
pad(n) = n <= 0 ? '' : '    ' . pad(n - 1)
set xlabel 'time (s, log scale)'
set logscale x
set format x '%g'
set xrange [{{XMIN}}:*]
set yrange [{{YMAX}}:-0.6]
set lmargin at screen 0.3
set ytics left offset screen -0.29, 0 scale 0
set grid xtics noytics
set offsets 0, graph 0.12, 0, 0
unset key
plot data using ({{XMIN}}):0:({{XMIN}}):2:($0 - 0.35):($0 + 0.35):(column(3) + 1):ytic(pad(column(3)) . strcol(1)) \
       with boxxyerror lc variable fill solid 0.9 noborder, \
     data using 2:0:(sprintf(' %.3g s', $2)) with labels left font ',9' notitle
