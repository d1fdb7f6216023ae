import type { Metadata } from 'next';
import Link from 'next/link';
import { EmptyState } from '@/components/states';
import { NAV_ITEMS } from '@/components/shell/nav-items';

export const metadata: Metadata = { title: 'Not found' };

/** Any unknown address, or a host that does not exist: the app's own shell, with a way back to each section. */
export default function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <EmptyState title="Nothing lives at this address.">
        <p className="muted">
          The link may be old, or the host was removed. Go to one of the sections instead:{' '}
          {NAV_ITEMS.map((item, i) => (
            <span key={item.href}>
              {i > 0 && ' · '}
              <Link href={item.href}>{item.label}</Link>
            </span>
          ))}
          .
        </p>
      </EmptyState>
    </>
  );
}
