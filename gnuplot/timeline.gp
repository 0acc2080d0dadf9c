# timeline.gp: a step's Gantt: a lane per request, grouped by worker under a band of the worker's
# step-level sections; each request's life split into its phases, the gaps between them as waiting.
# Columns: lane, worker, request_id, phase, start_s, end_s (seconds from the step's start).
set xlabel 'seconds since the step started'
set xrange [{{XRANGE}}]
set yrange [{{YMAX}}:-1]
set ytics ({{YTICS}}) scale 0
set grid xtics noytics
set key outside right top title 'phase' noautotitle
set style fill solid 1.0 noborder
set offsets 0, 0, 0, 0
{{MARKS}}
plot {{PLOTS}}
