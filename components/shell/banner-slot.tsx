import type { ReactNode } from 'react';

/**
 * Fleet-wide notices under the top bar, e.g. the demo-fleet banner (hosts labelled demo=true). Each banner is a
 * client leaf passed as a child in app/layout.tsx and renders nothing when it has nothing to say.
 */
export function BannerSlot({ children }: { children?: ReactNode }) {
  return (
    <div className="banner-slot" data-slot="banners">
      {children}
    </div>
  );
}
