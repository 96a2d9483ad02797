"""Run the fake provider alone, for benchmarks: `python -m tests.fake_provider --port 8100`.

With nothing scripted every model answers `--tokens` words in `--chunks` pieces, at
`--token-latency` seconds a word (the first piece after `--first-token-latency`), and
reports usage. Script it from another process with FakeProviderClient.
"""

import argparse
import itertools
import logging

from tests.fake_provider.server import FakeProvider, ProviderServer, reply_behaviour

_WORDS = "the quick brown fox jumps over the lazy dog".split()


def _reply_text(tokens: int) -> str:
    """`tokens` common words: about one cl100k/o200k token each."""
    return " ".join(itertools.islice(itertools.cycle(_WORDS), tokens)) + "."


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.fake_provider", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--token-latency", type=float, default=0.0, help="seconds per generated word")
    parser.add_argument("--tokens", type=int, default=100, help="words in the default reply")
    parser.add_argument("--chunks", type=int, default=20, help="streamed pieces of the default reply")
    parser.add_argument("--first-token-latency", type=float, default=None,
                        help="seconds before the first piece (default: one piece's worth of tokens)")
    args = parser.parse_args()

    chunks = max(1, min(args.chunks, args.tokens))
    chunk_latency = args.token_latency * args.tokens / chunks
    first = chunk_latency if args.first_token_latency is None else args.first_token_latency
    default = reply_behaviour(_reply_text(args.tokens), chunks=chunks, chunk_latency=chunk_latency,
                              first_token_latency=first)
    server = ProviderServer(FakeProvider(default), host=args.host, port=args.port)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    logging.info("fake provider on %s (OPENAI_API_BASE), chunk every %.3fs", server.base_url, chunk_latency)
    server.run()


if __name__ == "__main__":
    main()
