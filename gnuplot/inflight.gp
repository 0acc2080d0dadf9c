# inflight.gp: requests in flight over a step, per worker and in total, with dashed marks where
# 50, 90 and 99 % of the step's requests had finished.
# Columns: time_s (seconds from the step's start), total, then worker_M for each worker.
set xlabel 'seconds since the step started'
set ylabel 'requests in flight'
set yrange [0:*]
{{YTICS}}
set key outside right top
{{MARKS}}
plot for [c=3:{{LASTCOL}}] data using 1:c with steps {{WORKER_TITLE}}, \
     data using 1:2 with steps lw 3 lc rgb 'black' title 'all workers'
