import type { Metadata } from 'next';
import { headers } from 'next/headers';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { Providers } from '@/components/providers';
import { BannerSlot } from '@/components/shell/banner-slot';
import { DemoBanner } from '@/components/shell/demo-banner';
import { SessionMenu } from '@/components/session/session-menu';
import { MainNav } from '@/components/shell/main-nav';
import { ThemeToggle } from '@/components/shell/theme-toggle';
import { nonceOf } from '@/lib/server/security-headers';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'inferwatch', template: '%s · inferwatch' },
  description: 'Latency and host-health monitoring for ML inference fleets',
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The theme's inline script runs before hydration, so it carries the nonce server.ts gave this response.
  const nonce = nonceOf((await headers()).get('content-security-policy')) ?? undefined;
  return (
    // next-themes sets data-theme before hydration, so the attribute differs from the server's by design.
    <html lang="en" suppressHydrationWarning>
      <body>
        <Providers nonce={nonce}>
          <a href="#main" className="skip-link">
            Skip to content
          </a>
          <header className="topbar">
            <Link href="/" className="brand">
              inferwatch
            </Link>
            <MainNav />
            <SessionMenu />
            <ThemeToggle />
          </header>
          <BannerSlot>
            <DemoBanner />
          </BannerSlot>
          <main id="main" tabIndex={-1}>
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
