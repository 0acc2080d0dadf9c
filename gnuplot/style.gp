# rolltrace-style.gp: the look every rolltrace plot shares (loaded by each script).
# Edit it in the output folder and rerun 'gnuplot NAME.gp' to restyle all plots.
set encoding utf8
set grid xtics ytics lc rgb '#dddddd' lw 1 lt 1
set border 3 lc rgb '#555555'
set tics nomirror out scale 0.6
set key noenhanced
set title noenhanced font ',13'
set xlabel noenhanced
set ylabel noenhanced
set datafile separator '\t'
set datafile missing 'NaN'
set style fill solid 0.85 border -1
set linetype 1 lc rgb '#1f77b4' lw 2
set linetype 2 lc rgb '#ff7f0e' lw 2
set linetype 3 lc rgb '#2ca02c' lw 2
set linetype 4 lc rgb '#d62728' lw 2
set linetype 5 lc rgb '#9467bd' lw 2
set linetype 6 lc rgb '#8c564b' lw 2
set linetype 7 lc rgb '#e377c2' lw 2
set linetype 8 lc rgb '#7f7f7f' lw 2
set linetype 9 lc rgb '#bcbd22' lw 2
set linetype 10 lc rgb '#17becf' lw 2
set linetype 11 lc rgb '#393b79' lw 2
set linetype 12 lc rgb '#7b4173' lw 2
set linetype cycle 12
set key autotitle columnhead
