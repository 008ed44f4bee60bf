# mcp-flow-conformance in a container, so a server written in any language can be tested without
# Node.js on the machine:
#   docker build -t mcp-flow-conformance .
#   docker run --rm --network host mcp-flow-conformance server --url http://127.0.0.1:3000/mcp
#   docker run --rm --network host -v "$PWD:/work" mcp-flow-conformance server --url http://127.0.0.1:3000/mcp --reports conformance-reports
# The working directory is /work (mount your project there for a baseline, a config file or the
# reports); the entrypoint is the command line, so every command and option works as documented.

FROM node:20-alpine AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY vendor ./vendor
# No install scripts: the build below is explicit, and the optional HTTP/3 package (whose install
# step downloads a binary) is left out; WebTransport over HTTP/2, Streamable HTTP and stdio work.
RUN npm ci --no-audit --no-fund --ignore-scripts --omit=optional
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY suites ./suites
COPY schemas ./schemas
COPY scripts/schema-validators.mjs ./scripts/
# tsc and the schemas' compiled validators; not the bundled CLI (esbuild's binary is an optional
# package, left out above): bin/ runs dist/src/cli/main.js when there is no bundle.
RUN node node_modules/typescript/bin/tsc -p tsconfig.build.json \
 && node scripts/schema-validators.mjs \
 && npm prune --omit=dev --omit=optional --no-audit --no-fund --ignore-scripts

FROM node:20-alpine
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY schemas ./schemas
COPY vectors ./vectors
COPY wizards ./wizards
COPY suites/requirements.json ./suites/requirements.json
WORKDIR /work
USER node
ENTRYPOINT ["node", "/app/bin/mcp-flow-conformance.js"]
CMD ["--help"]
