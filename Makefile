# Makefile: the two README commands and their friends. CMake does the building;
# this file only strings together set-up, build and run so a new user needs two commands.
BUILD   ?= build
SANBUILD ?= build-san
PORT    ?= 8080
DB      ?= var/gpuplan.db
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps deps-test build run test sanitize bench fuzz clean

all: build

deps:
	@scripts/deps.sh build

deps-test:
	@scripts/deps.sh test

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)

run: build
	@mkdir -p $(dir $(DB))
	$(BUILD)/gpuplan serve --port $(PORT) --db $(DB)

test: deps-test $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS)
	scripts/ui-deps.sh
	cd $(BUILD) && ctest --output-on-failure -j 1

sanitize: deps-test
	cmake -S . -B $(SANBUILD) -DCMAKE_BUILD_TYPE=Debug -DGPUPLAN_SANITIZE=ON
	cmake --build $(SANBUILD) -j $(JOBS)
	cd $(SANBUILD) && ctest --output-on-failure -j 1 -LE nosan

bench: deps-test $(BUILD)/Makefile
	cmake --build $(BUILD) -j $(JOBS) --target benches
	scripts/bench.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(SANBUILD)
