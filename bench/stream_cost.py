"""What a streamed token and a chat message cost in CPU, side by side, in one run.

The fake OpenAI-protocol provider (tests/fake_provider, its own process) streams replies
of --short and --long tokens, ONE TOKEN A CHUNK, as fast as it can (or --token-latency
seconds apart, as a real model would). Against it:

1. in this process, one stream at a time, --calls each (medians of time.process_time()):
   - floor: raw httpx, `json.loads` of each SSE data line (nothing can read it for less);
   - sdk: the `openai` client (which litellm uses);
   - litellm: `litellm.acompletion(stream=True)`;
   - product, litellm: `whizi.llm.astream` with WHIZI_LEAN_STREAM off (the Router, litellm's stream);
   - product, lean: `whizi.llm.astream` as shipped (the Router, whizi.llm.lean);
   and `whizi.llm.acomplete` (a whole answer) for the JSON API's model call;
2. the whole web process: one uvicorn serving Whizi (fresh database, memory on), --chats
   messages sent one after another through the page's streaming endpoint at each
   length, and through the JSON API at the short one; the web process's CPU per message
   (from /proc), and the events the browser got.

Per token is the slope between the two lengths, so what a call or a message costs
whatever its length drops out; per call (per message) is what is left at zero tokens.
"Outside the model call" is a message's fixed CPU less the model call's own (part 1).

    python bench/stream_cost.py --database bench_stream_cost --redis-db 14
    python bench/stream_cost.py --root /tmp/main-src ...   # the web process of another checkout

PostgreSQL on 127.0.0.1:5432 as postgres, Redis on 127.0.0.1:6379 (--redis-db and the
next are emptied); everything it starts is stopped at the end. Figures: docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.stack import (  # noqa: E402
    cpu_seconds_of,
    database_drop,
    database_migrate,
    database_recreate,
    env_on_database,
    free_port,
    http_ok,
    process_start,
    redis_flush,
    stack_args_check,
    uvicorn_start,
    uvicorn_wait_ready,
    wait_until,
)

MESSAGES = [{"role": "user", "content": "Tell me a story."}]


def _model(tokens: int) -> str:
    return f"t{tokens}"


def _text(tokens: int) -> str:
    return " ".join(f"w{i % 10}" for i in range(tokens))


# ---------------------------------------------------------------- 1. in this process

async def _floor(client: httpx.AsyncClient, base: str, tokens: int) -> None:
    body = {"model": _model(tokens), "messages": MESSAGES, "stream": True,
            "stream_options": {"include_usage": True}}
    async with client.stream("POST", f"{base}/chat/completions", json=body,
                             headers={"Authorization": "Bearer sk-bench"}) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                json.loads(line[6:])


async def _sdk(client: object, tokens: int) -> None:
    stream = await client.chat.completions.create(model=_model(tokens), messages=MESSAGES, stream=True,
                                                  stream_options={"include_usage": True})
    async for _ in stream:
        pass


async def _litellm(litellm: object, tokens: int) -> None:
    stream = await litellm.acompletion(model=f"openai/{_model(tokens)}", messages=MESSAGES, stream=True,
                                       stream_options={"include_usage": True})
    async for _ in stream:
        pass


async def _product(tokens: int, *, lean: bool) -> None:
    from django.conf import settings

    from whizi.llm import astream

    settings.WHIZI_LEAN_STREAM = lean
    reply = astream(model=f"openai/{_model(tokens)}", messages=MESSAGES, timeout=60)
    async for _ in reply:
        pass
    assert reply.lean is lean


async def _answer(tokens: int) -> None:
    from whizi.llm import acomplete

    await acomplete(model=f"openai/{_model(tokens)}", messages=MESSAGES, timeout=60)


async def _cpu_ms(call: Callable[[], Awaitable[None]], calls: int) -> float:
    for _ in range(3):  # whatever a first call still loads
        await call()
    spent = []
    for _ in range(calls):
        started = time.process_time()
        await call()
        spent.append((time.process_time() - started) * 1000)
    return statistics.median(spent)


def _line(short: float, long: float, args: argparse.Namespace) -> dict[str, float]:
    per_token = (long - short) / (args.long - args.short)
    return {"per_token_us": round(per_token * 1000, 1),
            "per_call_ms": round(short - per_token * args.short, 2),
            f"at_{args.short}_ms": round(short, 2), f"at_{args.long}_ms": round(long, 2)}


async def in_process(args: argparse.Namespace, base: str) -> dict[str, dict[str, float]]:
    import openai

    from whizi.llm import litellm_module, llm_warm

    llm_warm()
    litellm = litellm_module()
    sdk = openai.AsyncOpenAI(base_url=base, api_key="sk-bench")
    paths: dict[str, Callable[[int], Awaitable[None]]] = {}
    async with httpx.AsyncClient(timeout=60) as client:
        paths = {
            "floor (httpx + json.loads)": lambda n: _floor(client, base, n),
            "openai SDK": lambda n: _sdk(sdk, n),
            "litellm.acompletion(stream=True)": lambda n: _litellm(litellm, n),
            "whizi.llm.astream, litellm's stream": lambda n: _product(n, lean=False),
            "whizi.llm.astream, lean (shipped)": lambda n: _product(n, lean=True),
            "whizi.llm.acomplete (JSON API)": _answer,
        }
        results = {}
        for name, path in paths.items():
            short = await _cpu_ms(lambda p=path: p(args.short), args.calls)
            long = await _cpu_ms(lambda p=path: p(args.long), args.calls)
            results[name] = _line(short, long, args)
    return results


# ---------------------------------------------------------------- 2. the web process

async def _web_messages(base: str, pid: int, model: str, chats: int, *,
                        streamed: bool, later: bool = False) -> tuple[float, float]:
    """CPU ms of the web process per message, and events per message (streamed). Each
    message is the first of a new chat (the side column and the chat's options are sent
    again with its reply), or, `later`, each goes on one chat."""
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        await client.get("/settings/")
        token = {"X-CSRFToken": client.cookies["csrftoken"]}
        ids = []
        for _ in range(1 if later else chats + 2):
            answer = await client.post("/api/conversations/", json={"model": model}, headers=token)
            ids.append(answer.json()["id"])
        if later:
            ids *= chats + 2
        events, spent = 0, 0.0
        for index, conversation in enumerate(ids):
            before = cpu_seconds_of([pid])[pid]
            if streamed:
                fields = {"content": "Tell me a story.", "conversation": str(conversation), "model": model,
                          "csrfmiddlewaretoken": client.cookies["csrftoken"]}
                async with client.stream("POST", "/send/stream/", data=fields, headers=token) as response:
                    names = [line async for line in response.aiter_lines() if line.startswith("event: ")]
                if names[-1] != "event: done":
                    raise RuntimeError(f"a streamed chat ended with {names[-1]}")
            else:
                answer = await client.post(f"/api/conversations/{conversation}/messages/",
                                           json={"content": "Tell me a story."}, headers=token)
                answer.raise_for_status()
                names = []
            await asyncio.sleep(0.05)  # the response's own tail, then read the CPU
            if index >= 2:  # the first two warm the process's paths for this length
                spent += cpu_seconds_of([pid])[pid] - before
                events += sum(name == "event: token" for name in names)
    return spent / chats * 1000, events / chats


def web_process(args: argparse.Namespace, provider_base: str) -> dict[str, object]:
    database_recreate(args.database)
    redis_flush(args.redis_db)
    models = f"openai/{_model(args.short)},openai/{_model(args.long)}"
    env = env_on_database(args.database, REDIS_URL=f"redis://127.0.0.1:6379/{args.redis_db}",
                          WHIZI_CHAT_MODELS=models, WHIZI_MEMORY_MODEL="whizi/offline",
                          WHIZI_RATE_LIMITS_ENABLED="false", OPENAI_API_BASE=provider_base,
                          OPENAI_API_KEY="sk-bench", WHIZI_LOG_LEVEL="WARNING", WHIZI_MEMORY_ENABLED="true")
    database_migrate(env, cwd=args.root)
    port = free_port()
    web = uvicorn_start(env=env, log=args.logs / "web.log", port=port, cwd=args.root,
                        options=["--no-access-log", "--timeout-keep-alive", "75"])
    base = f"http://127.0.0.1:{port}"
    try:
        uvicorn_wait_ready(web, base, timeout=120)
        short, short_events = asyncio.run(_web_messages(base, web.pid, f"openai/{_model(args.short)}",
                                                        args.chats, streamed=True))
        long, long_events = asyncio.run(_web_messages(base, web.pid, f"openai/{_model(args.long)}",
                                                      args.chats, streamed=True))
        json_short, _ = asyncio.run(_web_messages(base, web.pid, f"openai/{_model(args.short)}",
                                                  args.chats, streamed=False))
        later_streamed, _ = asyncio.run(_web_messages(base, web.pid, f"openai/{_model(args.short)}",
                                                      args.chats, streamed=True, later=True))
        later_json, _ = asyncio.run(_web_messages(base, web.pid, f"openai/{_model(args.short)}",
                                                  args.chats, streamed=False, later=True))
    finally:
        web.stop()
        database_drop(args.database)
    streamed = _line(short, long, args)
    return {"streamed": {**streamed, f"events_at_{args.short}": short_events,
                         f"events_at_{args.long}": long_events},
            "json": {f"at_{args.short}_ms": round(json_short, 2)},
            "later": {f"streamed_at_{args.short}_ms": round(later_streamed, 2),
                      f"json_at_{args.short}_ms": round(later_json, 2)}}


def report(args: argparse.Namespace, local: dict[str, dict[str, float]], web: dict[str, object]) -> None:
    floor = local["floor (httpx + json.loads)"]["per_token_us"]
    print(f"\nCPU per token (slope {args.short} -> {args.long} tokens, one a chunk) and per call; "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print(f"| {'path':<45} | {'per token':>10} | {'x floor':>7} | {'per call':>9} |")
    print(f"|{'-' * 47}|{'-' * 12}|{'-' * 9}|{'-' * 11}|")
    for name, line in local.items():
        ratio = line["per_token_us"] / floor if floor > 0 else float("nan")
        print(f"| {name:<45} | {line['per_token_us']:>7.1f} us | {ratio:>7.1f} | "
              f"{line['per_call_ms']:>6.2f} ms |")
    streamed = web["streamed"]
    ratio = streamed["per_token_us"] / floor if floor > 0 else float("nan")
    print(f"| {'the whole web process (/send/stream/)':<45} | {streamed['per_token_us']:>7.1f} us | "
          f"{ratio:>7.1f} | {streamed['per_call_ms']:>6.2f} ms |")
    lean_call = local["whizi.llm.astream, lean (shipped)"]["per_call_ms"]
    answer_call = local["whizi.llm.acomplete (JSON API)"][f"at_{args.short}_ms"]
    json_message = web["json"][f"at_{args.short}_ms"]
    print(f"\nA message's web CPU: streamed {streamed['per_call_ms']:.1f} ms + "
          f"{streamed['per_token_us']:.0f} us a token; JSON API at {args.short} tokens "
          f"{json_message:.1f} ms.")
    print(f"Outside the model call: streamed {streamed['per_call_ms'] - lean_call:.1f} ms "
          f"(less the model call's {lean_call:.1f} ms), JSON {json_message - answer_call:.1f} ms "
          f"(less {answer_call:.1f} ms).")
    later = web["later"]
    later_streamed, later_json = later[f"streamed_at_{args.short}_ms"], later[f"json_at_{args.short}_ms"]
    streamed_model = lean_call + streamed["per_token_us"] * args.short / 1000
    print(f"A later message in a chat, at {args.short} tokens: streamed {later_streamed:.1f} ms "
          f"({later_streamed - streamed_model:.1f} outside the model call), JSON {later_json:.1f} ms "
          f"({later_json - answer_call:.1f} outside).")
    print(f"Events the page got: {streamed[f'events_at_{args.short}']:.0f} for {args.short} tokens, "
          f"{streamed[f'events_at_{args.long}']:.0f} for {args.long}.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--short", type=int, default=100)
    parser.add_argument("--long", type=int, default=500)
    parser.add_argument("--token-latency", type=float, default=0.0,
                        help="seconds between the provider's chunks (0: as fast as it can)")
    parser.add_argument("--calls", type=int, default=15, help="in-process calls per path and length")
    parser.add_argument("--chats", type=int, default=15, help="web messages per length")
    parser.add_argument("--database", default="bench_stream_cost")
    parser.add_argument("--redis-db", type=int, default=14)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout the web process serves")
    parser.add_argument("--logs", type=Path, default=Path("/tmp/whizi-bench-stream-cost"))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    stack_args_check(parser, args)

    port = free_port()
    base = f"http://127.0.0.1:{port}/v1"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "whizi.settings", "OPENAI_API_BASE": base,
           "OPENAI_API_KEY": "sk-bench", "WHIZI_CHAT_MODELS": f"openai/{_model(args.short)}",
           "WHIZI_LOG_LEVEL": "WARNING"}
    argv = [sys.executable, "-m", "tests.fake_provider", "--port", str(port), "--token-latency", "0"]
    provider = process_start("provider", argv, env=env, log=args.logs / "provider.log")
    try:
        wait_until(lambda: http_ok(f"{base}/models"), timeout=30, what="the fake provider answers",
                   watch=[provider])
        from tests.fake_provider import FakeProviderClient

        scripts = FakeProviderClient(base)
        for tokens in (args.short, args.long):
            scripts.set_default(_model(tokens), _text(tokens), chunks=tokens,
                                chunk_latency=args.token_latency)
        os.environ.update(env)
        import django

        django.setup()
        local = asyncio.run(in_process(args, base))
        web = web_process(args, base)
    finally:
        provider.stop()
    report(args, local, web)
    if args.json:
        args.json.write_text(json.dumps({"in_process": local, "web": web, "load": os.getloadavg()[0]},
                                        indent=2))


if __name__ == "__main__":
    main()
