# kjudge — plain Makefile.  `make` builds build/kjudge and build/kjudge-worker,
# `make test` checks the layers (`make check-layers`) and runs every test
# through prove, `make asan` builds and tests with AddressSanitizer + UBSan,
# `make fuzz` runs the parser fuzzer.
# WERROR=1 turns warnings into errors (CI sets it).

BUILD   ?= build
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter -Wno-format-truncation \
           -Wno-missing-field-initializers
ifneq ($(findstring clang,$(CC)),)
WARN    := $(filter-out -Wno-format-truncation,$(WARN))
endif
ifeq ($(WERROR),1)
WARN    += -Werror
endif
SAN     ?=
KJ_CFLAGS := -std=c11 -D_GNU_SOURCE -ffp-contract=off -fPIC $(WARN) -Iinclude -Isrc $(SAN) $(CFLAGS)
LDLIBS  := -lmicrohttpd -lcurl -ljansson -lffi -lelf -lcrypto -lsqlite3 -lpq -lseccomp -lz -ldl -lm -lpthread
LDFLAGS += $(SAN)

LIB_DIRS := src/core src/task src/ops src/ops/cpu src/verdict src/judge src/sandbox src/store src/record src/score src/report src/llm src/serve src/trace
LIB_SRC  := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)

# The CUDA track is built when nvcc is found (NVCC= disables it).  The judge's
# own kernels are built for Hopper (sm_90a) with PTX for anything newer or
# older; files named *_nofma.cu are built with -fmad=false so that they round
# exactly like the CPU code (the input generator).
CUDA_HOME ?= /usr/local/cuda
NVCC    ?= $(shell command -v nvcc 2>/dev/null || { test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc; })
CU_SRC  := $(if $(NVCC),$(wildcard src/ops/cuda/*.cu))
CU_OBJ  := $(CU_SRC:%.cu=$(BUILD)/obj/%.o)
NVFLAGS ?= -O3 -std=c++17 -Xcompiler -fPIC -gencode arch=compute_90a,code=sm_90a \
	   -gencode arch=compute_80,code=compute_80 -Iinclude -Isrc -lineinfo
ifneq ($(NVCC),)
KJ_CFLAGS += -DKJ_HAVE_CUDA=1
KJ_CFLAGS += -I$(CUDA_HOME)/include
LDLIBS  += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublasLt -lcublas -lcudnn -lcudart -lstdc++
NVFLAGS += $(if $(findstring address,$(SAN)),,)
LIB_OBJ += $(CU_OBJ)
endif
CLI_SRC  := $(wildcard src/cli/*.c)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
WRK_SRC  := $(wildcard src/worker/*.c)
WRK_OBJ  := $(WRK_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
GPU_SRC  := $(wildcard tests/gpu/test_*.c)
GPU_BIN  := $(GPU_SRC:tests/gpu/%.c=$(BUILD)/tests/gpu/%)
GPU_SH   := $(sort $(wildcard tests/gpu/t*.sh))
CLI_TESTS := $(sort $(wildcard tests/cli/t*.sh))

.PHONY: all test test-unit test-cli test-gpu check-layers asan fuzz fuzz-build clean device-bundle
all: $(BUILD)/kjudge $(BUILD)/kjudge-worker

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KJ_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%_nofma.o: %_nofma.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -fmad=false -DKJ_HAVE_CUDA=1 -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -DKJ_HAVE_CUDA=1 -MMD -MP -c $< -o $@

# The eager baseline's identity: a hash of the sources that compute and time
# it (the ops and their CPU and CUDA kernels, the GPU judge).  judge_gpu.c puts
# it in the key of its baseline-timing cache, so that a changed baseline is
# timed afresh rather than read back from an older build's cache.
BASE_SRC := $(sort $(wildcard src/ops/*.c src/ops/*.h src/ops/cpu/*.c src/ops/cpu/*.h \
	      src/ops/cuda/*.cu src/ops/cuda/*.cuh src/ops/cuda/*.h src/judge/judge_gpu.c))
$(BUILD)/gen/kj_baseline_id.h: $(BASE_SRC)
	@mkdir -p $(dir $@)
	printf '#define KJ_BASELINE_ID "%s"\n' "$$(cat $(BASE_SRC) | sha256sum | cut -c1-16)" >$@.tmp && mv $@.tmp $@
$(BUILD)/obj/src/judge/judge_gpu.o: $(BUILD)/gen/kj_baseline_id.h
$(BUILD)/obj/src/judge/judge_gpu.o: KJ_CFLAGS += -I$(BUILD)/gen

# kjudge's version: the release, and the commit it was built from (with
# -dirty when the tree had changes) where the source is a git checkout;
# rewritten only when it changes
KJ_RELEASE := 0.1
$(BUILD)/gen/kj_version.h: FORCE
	@mkdir -p $(dir $@)
	@c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && v="$(KJ_RELEASE)+g$$c$$(git diff --quiet HEAD -- 2>/dev/null || echo -dirty)" || v="$(KJ_RELEASE)"; \
	printf '#define KJ_VERSION_STRING "%s"\n' "$$v" >$@.tmp; cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/obj/src/core/version.o: $(BUILD)/gen/kj_version.h
$(BUILD)/obj/src/core/version.o: KJ_CFLAGS += -I$(BUILD)/gen
.PHONY: FORCE
FORCE:

# the store's schema is embedded in schema.o
$(BUILD)/obj/src/store/schema.o: src/store/schema.sql
$(BUILD)/obj/src/store/schema_pg.o: src/store/schema_pg.sql

$(BUILD)/libkjudge.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/kjudge: $(CLI_OBJ) $(BUILD)/libkjudge.a
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libkjudge.a $(LDLIBS)

# The worker links no cuBLAS or cuDNN, whatever the linker's default: the
# judge flags either in a worker's memory map as a library fallback
# (src/judge/stages.c, kjj_check_mapped_libs).  Debian's and Ubuntu's gcc
# link --as-needed by default and so dropped them; clang (make asan) does
# not, and every verdict of its workers said fallback (cuBLAS, cuDNN).
WRK_LDLIBS := -Wl,--as-needed $(filter-out -lcublasLt -lcublas -lcudnn,$(LDLIBS))
# Under clang's AddressSanitizer the worker takes the sanitizer's runtime as
# a shared library, as gcc's does by default.  Linked in statically, the
# runtime defines recvmsg, send, clock_gettime... in the worker itself, the
# worker calls them through no GOT slot, and the red-team cases that hook
# its GOT (examples/redteam/2[1-4]_got_*) hooked nothing and tested nothing.
ifneq ($(and $(findstring clang,$(CC)),$(findstring address,$(SAN))),)
WRK_LDFLAGS := -shared-libasan -Wl,-rpath,$(shell $(CC) -print-runtime-dir)
endif
$(BUILD)/kjudge-worker: $(WRK_OBJ) $(BUILD)/libkjudge.a
	$(CC) $(LDFLAGS) $(WRK_LDFLAGS) -o $@ $(WRK_OBJ) $(BUILD)/libkjudge.a $(WRK_LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/tap.h $(BUILD)/libkjudge.a
	@mkdir -p $(dir $@)
	$(CC) $(KJ_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(BUILD)/libkjudge.a $(LDLIBS)
$(addprefix $(BUILD)/tests/test_ops_,a b c d e f): tests/unit/ops_testlib.h
$(addprefix $(BUILD)/tests/test_,worker sandbox jail): tests/unit/so_testlib.h
$(addprefix $(BUILD)/tests/test_,pyworker pyfilter pysandbox pybuild pypool): tests/unit/py_testlib.h

# GPU tests link the shared library, so that the GPU machine gets one copy of
# the device code (the fatbin is most of the size) and small test programs.
$(BUILD)/libkjudge.so: $(LIB_OBJ)
	$(CC) -shared $(LDFLAGS) -o $@ $(LIB_OBJ) $(LDLIBS)

$(BUILD)/tests/gpu/%: tests/gpu/%.c tests/unit/tap.h $(BUILD)/libkjudge.so
	@mkdir -p $(dir $@)
	$(CC) $(KJ_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< -L$(BUILD) -lkjudge \
	  -Wl,-rpath,'$$ORIGIN/../..' $(LDLIBS)

# A compact copy for the GPU machine, whose transfers are capped (64 MiB):
# kjudge linked against libkjudge.so (one copy of the device code), debug info
# stripped.  Carry $(BUILD)/device and set KJ_BUILD to it there.
DEV := $(BUILD)/device
device-bundle: all $(BUILD)/libkjudge.so $(GPU_BIN)
	rm -rf $(DEV) && mkdir -p $(DEV)/tests/gpu
	$(CC) $(LDFLAGS) -o $(DEV)/kjudge $(CLI_OBJ) -L$(BUILD) -lkjudge -Wl,-rpath,'$$ORIGIN' $(LDLIBS)
	cp $(BUILD)/kjudge-worker $(BUILD)/libkjudge.so $(DEV)/
	cp $(GPU_BIN) $(DEV)/tests/gpu/
	strip --strip-debug $(DEV)/kjudge $(DEV)/kjudge-worker $(DEV)/libkjudge.so $(DEV)/tests/gpu/*

# GPU tests: every test says it skips when there is no GPU (or no CUDA build).
test-gpu: all $(GPU_BIN)
	KJ_BUILD=$(abspath $(BUILD)) prove -f --exec '' $(GPU_BIN) $(GPU_SH)

# the layer rules of docs/architecture.md: which module may include which
check-layers:
	tests/check_layers.sh

test: check-layers all $(UNIT_BIN)
	KJ_BUILD=$(abspath $(BUILD)) prove -f --exec '' $(UNIT_BIN) $(CLI_TESTS)

test-unit: $(UNIT_BIN)
	prove -f --exec '' $(UNIT_BIN)

test-cli: all
	KJ_BUILD=$(abspath $(BUILD)) prove -f --exec '' $(CLI_TESTS)

asan:
	$(MAKE) BUILD=build/asan CC=clang SAN='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined' test

# libFuzzer target for the task parser, seeded with every shipped task.
FUZZ_SECONDS ?= 60
fuzz-build: $(BUILD)/fuzz/fuzz_parser
$(BUILD)/fuzz/fuzz_parser: tests/fuzz/fuzz_parser.c $(LIB_SRC) $(BUILD)/gen/kj_baseline_id.h $(BUILD)/gen/kj_version.h
	@mkdir -p $(dir $@)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Iinclude -Isrc -I$(BUILD)/gen -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=undefined -o $@ tests/fuzz/fuzz_parser.c $(LIB_SRC) $(LDLIBS)
fuzz: fuzz-build
	@mkdir -p $(BUILD)/fuzz/corpus
	cp tasks/*/*.kt $(BUILD)/fuzz/corpus/ 2>/dev/null || true
	$(BUILD)/fuzz/fuzz_parser -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	  -dict=tests/fuzz/kt.dict $(BUILD)/fuzz/corpus

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
