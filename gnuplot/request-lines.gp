# request-lines.gp: one request's lines in time, a row each (rt-requests --id), a line inside another
# indented under it; the gaps where no innermost line ran as rows of their own; an instant line
# (no duration) a dot. Columns: phase, event, turn, depth, start_s, end_s, duration_s (from the
# request's start).
pad(n) = n <= 0 ? '' : '    ' . pad(n - 1)
label(n) = pad(column(4)) . (strcol(1) eq 'gap' ? 'gap: nothing logged' : strcol(2)) \
           . (valid(3) ? sprintf(' (turn %d)', column(3)) : '')
set xlabel 'seconds since the request started'
set yrange [{{YMAX}}:-0.6]
set lmargin at screen 0.3
set ytics left offset screen -0.29, 0 scale 0 font ',9'
set grid xtics noytics
set key outside right top title 'phase' noautotitle
set style fill solid 1.0 noborder
plot {{PLOTS}}data using 5:(valid(7) ? NaN : $0) with points pt 7 ps 0.5 lc rgb 'black' title 'instant line', \
     data using 5:0:ytic(label(0)) with points pt 7 ps 0.01 lc rgb '#ffffffff' notitle
