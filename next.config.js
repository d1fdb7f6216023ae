// Security headers, the script policy with its per-request nonce included, are set by server.ts
// (lib/server/security-headers.ts), which serves both `npm start` and `npm run dev`.

/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  serverExternalPackages: ['@electric-sql/pglite', 'pglite-prisma-adapter', 'pg', 'prom-client'],
};

export default nextConfig;
