#!/bin/bash
# Sequential figure runs for docs/lobo.md (one heavy job at a time).
B=./target/release/djego
run() { name=$1; shift; echo "== djego solve lobo $*" > runs/$name.txt; /usr/bin/time -v timeout 178 $B solve lobo "$@" >> runs/$name.txt 2> runs/$name.err; }
run easy_upper_none --mode easy --bound upper --penalty none --samples 8000
run ordinary_upper_none --mode ordinary --bound upper --penalty none --samples 6000
run hard_upper_none --mode hard --bound upper --penalty none --samples 5000
run ordinary_lower --mode ordinary --bound lower --samples 200
run hard_lower --mode hard --bound lower --samples 150
run easy_policies --mode easy --bound policies --samples 20000
run ordinary_policies --mode ordinary --bound policies --samples 20000
run hard_policies --mode hard --bound policies --samples 20000
run easy_upper_cap20 --mode easy --bound upper --penalty none --cap 20 --samples 6000
run ordinary_upper_cap20 --mode ordinary --bound upper --penalty none --cap 20 --samples 5000
run hard_upper_cap20 --mode hard --bound upper --penalty none --cap 20 --samples 4000
echo done > runs/ALL_DONE
