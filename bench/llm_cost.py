"""What one model call costs the web process in CPU, litellm and the OpenAI client included.

It starts the fake OpenAI-protocol provider (tests/fake_provider) on loopback, then, in
this process, asks it through whizi.llm exactly as a chat does (the Router, litellm's
HTTP path): first the very first call after start-up, with and without the start-up
warm-up (whizi.llm.llm_warm), then --calls answers whole and streamed in --chunks
pieces, one at a time, measuring `time.process_time()` around each. Medians in ms.

    python bench/llm_cost.py --chunks 20 --tokens 200
    python bench/llm_cost.py --chunks 100 --tokens 200   # the difference / 80: a piece's cost

No database is used. Figures: docs/PERFORMANCE.md ("Where a chat's CPU goes").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.stack import free_port, http_ok, process_start, wait_until  # noqa: E402

MODEL = "openai/bench-cost"
MESSAGES = [{"role": "system", "content": "You are Whizi. " * 200},
            {"role": "user", "content": "Tell me about my week. " * 20}]


async def _stream_once() -> float:
    from whizi.llm import astream

    started = time.process_time()
    reply = astream(model=MODEL, messages=MESSAGES, timeout=30)
    async for _ in reply:
        pass
    return (time.process_time() - started) * 1000


async def _answer_once() -> float:
    from whizi.llm import acomplete

    started = time.process_time()
    await acomplete(model=MODEL, messages=MESSAGES, timeout=30)
    return (time.process_time() - started) * 1000


def first_call(warm: bool, env: dict[str, str]) -> dict[str, float]:
    """The first streamed call of a fresh process (its own interpreter, so nothing is
    loaded yet), after `import whizi.asgi` (which warms) or only Django's set-up."""
    code = f"""
import asyncio, json, sys, time
sys.path.insert(0, {str(ROOT)!r})
import django
django.setup()
{"import whizi.asgi" if warm else "from whizi.llm.router import model_router; model_router()"}
from bench.llm_cost import _stream_once
print(json.dumps({{"first_stream_ms": round(asyncio.run(_stream_once()), 1)}}))
"""
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=300, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--chunks", type=int, default=20)
    parser.add_argument("--tokens", type=int, default=100)
    parser.add_argument("--logs", type=Path, default=Path("/tmp/whizi-bench-llm-cost"))
    args = parser.parse_args()

    port = free_port()
    provider_url = f"http://127.0.0.1:{port}/v1"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "whizi.settings", "OPENAI_API_BASE": provider_url,
           "OPENAI_API_KEY": "sk-bench", "WHIZI_CHAT_MODELS": MODEL, "WHIZI_LOG_LEVEL": "WARNING"}
    argv = [sys.executable, "-m", "tests.fake_provider", "--port", str(port), "--tokens", str(args.tokens),
            "--chunks", str(args.chunks), "--token-latency", "0.001"]
    provider = process_start("provider", argv, env=env, log=args.logs / "provider.log")
    try:
        wait_until(lambda: http_ok(f"{provider_url}/models"), timeout=30, what="the fake provider answers",
                   watch=[provider])
        report: dict[str, object] = {"calls": args.calls, "chunks": args.chunks}
        report["cold"] = first_call(warm=False, env=env)
        report["warmed"] = first_call(warm=True, env=env)

        os.environ.update(env)
        import django

        django.setup()
        from whizi.llm import llm_warm

        llm_warm()

        async def measure() -> tuple[list[float], list[float]]:
            for _ in range(3):  # whatever is still loaded on a first call
                await _stream_once()
                await _answer_once()
            streams = [await _stream_once() for _ in range(args.calls)]
            answers = [await _answer_once() for _ in range(args.calls)]
            return streams, answers

        streams, answers = asyncio.run(measure())
        report.update(answer_ms=round(statistics.median(answers), 1),
                      stream_ms=round(statistics.median(streams), 1))
        print(json.dumps(report, indent=2))
    finally:
        provider.stop()


if __name__ == "__main__":
    main()
