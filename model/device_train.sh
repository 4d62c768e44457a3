#!/bin/sh
# The default model's training on a lent accelerator, in ONE device call (model/weights/README.md's
# runbook): the machine goes back 30 s after a call ends, killing anything left running, so the
# corpus, the training and the packing of the result all happen inside the call's 600 s.
#   device run: sh model/device_train.sh   (carry: ["runs/carry"], timeout_s 600)
# SECONDS_FOR_WORK (default 480): seconds from the start to the training's end (the corpus build
# comes out of it); the held-out evaluation, the last save and the packing take about a minute more.
# INIT=model/weights: continue the shipped model instead (its tokenizer, shape and 384-token
# sequences; batch 256, lr 6e-4), the plan after session 36's from-scratch run (model card).
# The result comes back as $OUT/m.tar.* (pieces of 15 MiB: the 16,384-token embedding alone is a
# 16 MiB file, over the tool's limit per file) and $OUT/train.out; here:
#   mkdir -p runs/gpu && cat /work/.device/N/m.tar.* | tar xf - -C runs/gpu
set -x
T0=$(date +%s)
WORK=${SECONDS_FOR_WORK:-480}
mkdir -p /tmp/run /tmp/ns && ln -sfn "$PWD/lsp_server" /tmp/ns/redraft && ln -sfn "$PWD/model" lsp_server/model && \
 ln -sfn "$PWD/kernels" lsp_server/kernels && export PYTHONPATH=/tmp/ns PYTHONUNBUFFERED=1
if [ -n "$INIT" ]; then SHAPE="--init $INIT --seq-len 384 --batch-size 256 --lr 6e-4 --warmup-steps 100"
else cp runs/carry/tokenizer.json /tmp/run/; SHAPE="--preset accel --seq-len 1152 --batch-size 64 --lr 2e-3 --warmup-steps 200"; fi
nvidia-smi --query-gpu=name,memory.total --format=csv
# the device's own Python, limited to the modules this project's machine holds (runs/carry/python_modules.txt)
python3 -m redraft.model.train --build-corpus --humaneval runs/carry/HumanEval.jsonl.gz \
  --carried runs/carry/languages.jsonl.xz --data /tmp/corpus --steps 0 > /tmp/corpus.out 2>&1
tail -80 /tmp/corpus.out
train() {  # $1: --compile 0|1
  NOW=$(date +%s); TB=$((WORK - (NOW - T0))); echo "time budget $TB s"
  timeout -s INT $((TB + 75)) python3 -m redraft.model.train --data /tmp/corpus --out /tmp/run $SHAPE \
    --workers 12 --compile "$1" --time-budget $TB --save-every 90 >> $OUT/train.out 2>&1
  echo "train rc $?"
}
train 1
[ -f /tmp/run/config.json ] || train 0   # compiling failed at once: the same without it
(cd /tmp/run && tar cf - model*.safetensors* config.json train_info.json tokenizer.json log.jsonl) | split -b 15M - $OUT/m.tar.
ls -la /tmp/run $OUT; tail -4 $OUT/train.out
