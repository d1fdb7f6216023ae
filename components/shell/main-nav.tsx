'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { NAV_ITEMS, isActiveSection } from './nav-items';

export function MainNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="main-nav">
      <ul>
        {NAV_ITEMS.map((item) => {
          const active = isActiveSection(item.href, pathname);
          return (
            <li key={item.href}>
              <Link href={item.href} aria-current={active ? 'page' : undefined} className="nav-link">
                {item.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
