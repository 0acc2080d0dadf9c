# render.mk: renders every gnuplot script of an output folder, run there by `make plots`.
# A plot is redrawn only when its script, its data or the shared style is newer than it.
FORMAT ?= png
# `make plots` gives the scripts its run wrote (stale ones of earlier runs are not redrawn)
SCRIPTS ?= $(wildcard *.gp)
PLOTS := $(patsubst %.gp,%.$(FORMAT),$(filter-out rolltrace-style.gp,$(SCRIPTS)))

all: $(PLOTS)

# The data a script plots is named on its line "data = 'NAME.tsv'" (several plots may
# share one table): read from the script itself, so no list of plots is kept here.
data_of = $(subst ',,$(filter '%.tsv',$(file <$(1))))

# gnuplot draws into a temporary name (the script's `set output` honours rt_output),
# renamed only when it succeeded and the picture ends as its format ends (gnuplot exits
# 0 even when a full disk cut the picture short): a failed or interrupted plot leaves
# the previous picture, or none, and no partial file.
picture_end_png = IEND
picture_end_svg = </svg>
picture_end_pdf = %%EOF

.SECONDEXPANSION:
%.$(FORMAT): %.gp $$(call data_of,$$*.gp) rolltrace-style.gp
	@tmp=".$@.$$$$"; trap 'rm -f "$$tmp"' EXIT INT TERM; \
	gnuplot -e "rt_output='$$tmp'" $< && tail -c 64 "$$tmp" | grep -aqF '$(picture_end_$(FORMAT))' \
	  && mv -f "$$tmp" $@
