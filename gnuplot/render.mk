# render.mk: renders every gnuplot script of an output folder, run there by `make plots`.
# A plot is redrawn only when its script, its data or the shared style is newer than it.
FORMAT ?= png
SCRIPTS := $(wildcard *.gp)
PLOTS := $(patsubst %.gp,%.$(FORMAT),$(filter-out rolltrace-style.gp,$(SCRIPTS)))

all: $(PLOTS)

%.$(FORMAT): %.gp %.tsv rolltrace-style.gp
	@gnuplot $< || { rm -f $@; exit 1; }
