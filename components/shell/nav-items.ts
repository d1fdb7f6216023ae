/** The shell's sections, in the order the navigation shows them. A page added later needs only its entry here. */
export interface NavItem {
  href: string;
  label: string;
}

export const NAV_ITEMS: readonly NavItem[] = [
  { href: '/', label: 'Fleet' },
  { href: '/regions', label: 'Regions' },
  { href: '/compare', label: 'Compare' },
  { href: '/findings', label: 'Findings' },
  { href: '/slo', label: 'SLOs' },
  { href: '/alerts', label: 'Alerts' },
  { href: '/settings', label: 'Settings' },
];

/** Whether `pathname` is inside the section `href` (the fleet section also holds /hosts/[id]). */
export function isActiveSection(href: string, pathname: string): boolean {
  if (href === '/') return pathname === '/' || pathname.startsWith('/hosts/');
  return pathname === href || pathname.startsWith(`${href}/`);
}
