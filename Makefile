# kjudge — plain Makefile.  `make` builds build/kjudge and build/kjudge-worker,
# `make test` runs every test through prove, `make asan` builds and tests with
# AddressSanitizer + UBSan, `make fuzz` runs the parser fuzzer.
# WERROR=1 turns warnings into errors (CI sets it).

BUILD   ?= build
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter -Wno-format-truncation
ifneq ($(findstring clang,$(CC)),)
WARN    := $(filter-out -Wno-format-truncation,$(WARN))
endif
ifeq ($(WERROR),1)
WARN    += -Werror
endif
SAN     ?=
KJ_CFLAGS := -std=c11 -D_GNU_SOURCE -ffp-contract=off -fPIC $(WARN) -Iinclude -Isrc $(SAN) $(CFLAGS)
LDLIBS  := -ljansson -lffi -lelf -lcrypto -lsqlite3 -ldl -lm -lpthread
LDFLAGS += $(SAN)

LIB_DIRS := src/core src/task src/ops src/ops/cpu src/judge src/sandbox src/store src/score src/report src/llm
LIB_SRC  := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_SRC  := $(wildcard src/cli/*.c)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
WRK_SRC  := $(wildcard src/worker/*.c)
WRK_OBJ  := $(WRK_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
CLI_TESTS := $(sort $(wildcard tests/cli/t*.sh))

.PHONY: all test test-unit test-cli asan fuzz fuzz-build clean
all: $(BUILD)/kjudge $(BUILD)/kjudge-worker

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KJ_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libkjudge.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/kjudge: $(CLI_OBJ) $(BUILD)/libkjudge.a
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libkjudge.a $(LDLIBS)

$(BUILD)/kjudge-worker: $(WRK_OBJ) $(BUILD)/libkjudge.a
	$(CC) $(LDFLAGS) -o $@ $(WRK_OBJ) $(BUILD)/libkjudge.a $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/tap.h $(BUILD)/libkjudge.a
	@mkdir -p $(dir $@)
	$(CC) $(KJ_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(BUILD)/libkjudge.a $(LDLIBS)

test: all $(UNIT_BIN)
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
$(BUILD)/fuzz/fuzz_parser: tests/fuzz/fuzz_parser.c $(LIB_SRC)
	@mkdir -p $(dir $@)
	clang -std=c11 -D_GNU_SOURCE -g -O1 -Iinclude -Isrc -fsanitize=fuzzer,address,undefined \
	  -fno-sanitize-recover=undefined -o $@ tests/fuzz/fuzz_parser.c $(LIB_SRC) $(LDLIBS)
fuzz: fuzz-build
	@mkdir -p $(BUILD)/fuzz/corpus
	cp tasks/*/*.kt $(BUILD)/fuzz/corpus/ 2>/dev/null || true
	$(BUILD)/fuzz/fuzz_parser -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	  -dict=tests/fuzz/kt.dict $(BUILD)/fuzz/corpus

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
