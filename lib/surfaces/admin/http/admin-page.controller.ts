import { Controller, Get, Header } from '@nestjs/common';
import { ADMIN_PAGE_CSP, ADMIN_PAGE_HTML } from '../page/admin-page.js';

/**
 * Serves the admin page at the module's path. The page is a shell without data, so it is served
 * without the API's protection (a browser sends no Authorization header on navigation); every
 * request it makes goes to the guarded API, with the token the operator types in.
 */
@Controller()
export class AdminPageController {
  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Content-Security-Policy', ADMIN_PAGE_CSP)
  @Header('Cache-Control', 'no-store')
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Referrer-Policy', 'no-referrer')
  @Header('X-Frame-Options', 'DENY')
  page(): string {
    return ADMIN_PAGE_HTML;
  }
}
