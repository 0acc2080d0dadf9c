# compare-mix.gp: the difference of two mean request durations split exactly into mix, speed and
# unmatched terms (rt-compare --mix): on the left one bar per term and their sum, on the right
# the terms of each length bin. Data: lo, hi, requests_a, requests_b, share_a, share_b,
# mean_a, mean_b, mix, speed, unmatched (one row per bin).
$totals << EOD
{{TOTALS}}
EOD
set multiplot layout 1,2 columns
set style fill solid 0.85 noborder
set ylabel 'seconds of mean request duration'
set xzeroaxis lt -1
set grid ytics
set lmargin 12
set size 0.34, 0.9
set origin 0, 0.02
set title {{LEFT_TITLE}} font ',11'
set boxwidth 0.6
set xrange [-0.6:3.6]
set xtics ('mean B - A' 0, 'mix' 1, 'speed' 2, 'unmatched' 3)
plot $totals using 1:2:3 with boxes lc variable notitle, \
     $totals using 1:2:(sprintf('%+.3f', $2)) with labels offset 0, char 0.8 font ',9' notitle
set size 0.64, 0.9
set origin 0.35, 0.02
set lmargin 8
unset ylabel
set title {{RIGHT_TITLE}} font ',11'
set xrange [*:*]
set xtics auto
set xlabel {{XLABEL}}
set style data histograms
set style histogram clustered gap 1
set xtics rotate by -30
set key outside right top vertical
plot data using 9:xtic({{TICLABEL}}) lt 2 title 'mix', \
     data using 10 lt 3 title 'speed', \
     data using 11 lt 4 title 'unmatched'
unset multiplot
