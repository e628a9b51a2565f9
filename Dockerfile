# loopprep in a container: a Debian 12 + Swift 6.3 build stage, and a slim Debian 12 runtime with only FFmpeg
# 5.1's shared libraries, which loopprep loads when it first needs them (the Swift runtime is linked in).
#   docker build -t loopprep .
#   docker run --rm -v "$PWD:/repo" -w /repo loopprep analyze media --format github
# (the repository mounted and paths relative to it, so CI annotations attach to the files; .dockerignore keeps
# build folders and benchmark outputs out of the context)
FROM swift:6.3-bookworm AS build
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      pkg-config libavformat-dev libavcodec-dev libavfilter-dev libavutil-dev libswscale-dev libswresample-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN swift build -c release --static-swift-stdlib \
    && install -D .build/release/loopprep /out/loopprep

FROM debian:bookworm-slim
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      libavformat59 libavcodec59 libavfilter8 libavutil57 libswscale6 libswresample4 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/loopprep /usr/local/bin/loopprep
ENTRYPOINT ["loopprep"]
CMD ["--help"]
