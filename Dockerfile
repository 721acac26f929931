# Build stage: the same install and build scripts as the README and CI.
FROM debian:bookworm-slim AS build
WORKDIR /src
COPY tools/install-deps.sh tools/install-deps.sh
RUN tools/install-deps.sh --build
COPY . .
RUN tools/build.sh --target ddb-server \
 && mkdir -p /out/lib \
 && cp build/ddb-server /out/ \
 && ldd build/ddb-server | awk '/=> \//{print $3}' | xargs -I{} cp -L {} /out/lib/

# Runtime stage: the binary and the shared libraries it links, nothing else.
FROM debian:bookworm-slim
COPY --from=build /out/ddb-server /usr/local/bin/ddb-server
COPY --from=build /out/lib/ /usr/local/lib/ddb/
ENV LD_LIBRARY_PATH=/usr/local/lib/ddb
RUN useradd --system --uid 10001 ddb && mkdir -p /data && chown ddb /data
USER ddb
EXPOSE 8000
VOLUME /data
HEALTHCHECK --interval=10s --timeout=3s CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8000 && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q healthy <&3"]
CMD ["ddb-server", "--host", "0.0.0.0", "--data-dir", "/data"]
