"""The floor of the attachment bench: a plain file copy through one uvicorn worker, the
same server stack as ours (Starlette under uvicorn) with no key, database, hash or store.
PUT /files/{name} writes the body to a file as it arrives; GET streams the file back.

    python -m bench.file_floor --port P --folder DIR
"""

from __future__ import annotations

import argparse
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route


def app_for(folder: Path) -> Starlette:
    async def put(request: Request) -> Response:
        with (folder / request.path_params["name"]).open("wb") as target:
            async for chunk in request.stream():
                target.write(chunk)
        return Response(status_code=201)

    async def get(request: Request) -> Response:
        return FileResponse(folder / request.path_params["name"])

    async def ready(request: Request) -> Response:
        return Response("ok")

    return Starlette(
        routes=[
            Route("/files/{name}", put, methods=["PUT"]),
            Route("/files/{name}", get, methods=["GET"]),
            Route("/healthz", ready),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--folder", type=Path, required=True)
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    uvicorn.run(app_for(args.folder), host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
