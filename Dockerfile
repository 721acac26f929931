# ddb-server as a drop-in for the amazon/dynamodb-local image: the same working directory,
# user id and command line (`docker run -p 8000:8000 IMAGE -jar DynamoDBLocal.jar -sharedDb
# -inMemory` works: the `-jar FILE` part is skipped), on an image of the binary and the
# shared libraries it links, nothing else. Build with `docker build -t ddb .` (podman: add
# `--format docker`, or the HEALTHCHECK is dropped). tools/container-check.sh proves it.

# Build stage: the same install and build scripts as the README and CI.
FROM debian:bookworm-slim AS build
WORKDIR /src
COPY tools/install-deps.sh tools/install-deps.sh
RUN tools/install-deps.sh --build
COPY . .
# The runtime root: the stripped binaries (the server and the `ddb` command line, for
# `docker exec CONTAINER ddb tables`), each library ldd names (with the loader) at its own
# path, users root and dynamodblocal (1000, as DynamoDB Local's image has: `user: root` and
# `chown 1000` habits keep working), and the data directory it owns. Not a static binary:
# Debian ships simdjson only as a shared library.
RUN tools/build.sh --target ddb-server ddb_cli_main \
 && mkdir -p /image/usr/local/bin /image/etc /image/tmp /image/home/dynamodblocal/data \
 && strip --strip-unneeded -o /image/usr/local/bin/ddb-server build/ddb-server \
 && strip --strip-unneeded -o /image/usr/local/bin/ddb build/ddb \
 && for lib in $( (ldd build/ddb-server; ldd build/ddb) | grep -o '/[^ ]*' | sort -u); do cp -L --parents "$lib" /image; done \
 && printf 'root:x:0:0:root:/root:/usr/sbin/nologin\ndynamodblocal:x:1000:1000::/home/dynamodblocal:/usr/sbin/nologin\n' > /image/etc/passwd \
 && printf 'root:x:0:\ndynamodblocal:x:1000:\n' > /image/etc/group \
 && chmod 1777 /image/tmp

FROM scratch
COPY --from=build /image/ /
COPY --from=build --chown=1000:1000 /image/home/dynamodblocal/ /home/dynamodblocal/
USER dynamodblocal
WORKDIR /home/dynamodblocal
EXPOSE 8000
# -dbPath ./data (or ddb's default --data-dir ./data) keeps tables here.
VOLUME /home/dynamodblocal/data
# Needs nothing but the binary; with another -port, override it: `--health-cmd
# "ddb-server --health-check -port 8001"`.
HEALTHCHECK --interval=1s --timeout=2s --start-period=5s --retries=3 CMD ["ddb-server", "--health-check"]
ENTRYPOINT ["ddb-server"]
# DynamoDB Local's default: in memory, one database per access key and region.
CMD ["-jar", "DynamoDBLocal.jar", "-inMemory"]
