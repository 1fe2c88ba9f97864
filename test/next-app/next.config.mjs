// Reports are sent to /webhooks, as to every conformance target, with a header naming the
// runtime; a rewrite (which leaves request.url as sent) takes them to that runtime's route.
// On Edge only /webhooks itself: Next.js adds a rewrite's or a dynamic route's path params to
// an Edge route's request.url as query parameters, which a composed template would read.
const runtime = (value) => [{ type: "header", key: "x-next-runtime", value }];

/** @type {import("next").NextConfig} */
export default {
  // Paths are served as sent: no redirect of a trailing slash.
  skipTrailingSlashRedirect: true,
  async rewrites() {
    return {
      beforeFiles: [
        { source: "/webhooks", has: runtime("node"), destination: "/node/hook" },
        { source: "/webhooks/:path*", has: runtime("node"), destination: "/node/hook" },
        { source: "/webhooks", has: runtime("edge"), destination: "/edge/hook" },
      ],
    };
  },
};
