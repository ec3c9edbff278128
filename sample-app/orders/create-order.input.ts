import { BadRequestException } from '@nestjs/common';

/** The body of `POST /orders`. */
export interface CreateOrderInput {
  customerId: string;
  amount: number;
}

/** The customer id is the outbox ordering key, whose limit is 200 characters. */
const MAX_CUSTOMER_ID_LENGTH = 200;
const MAX_AMOUNT = 1_000_000_000;

/** Checks the body by hand and answers 400 naming every problem at once. */
export function parseCreateOrder(body: unknown): CreateOrderInput {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new BadRequestException('The body must be a JSON object: {"customerId": string, "amount": number}.');
  }
  const { customerId, amount } = body as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof customerId !== 'string' || customerId.trim().length === 0 || customerId.length > MAX_CUSTOMER_ID_LENGTH) {
    problems.push(`customerId must be a non-empty string of at most ${MAX_CUSTOMER_ID_LENGTH} characters`);
  }
  if (
    typeof amount !== 'number' ||
    !Number.isFinite(amount) ||
    amount <= 0 ||
    amount > MAX_AMOUNT ||
    !hasAtMostTwoDecimals(amount)
  ) {
    problems.push(`amount must be a number greater than 0 and at most ${MAX_AMOUNT}, with at most two decimals`);
  }
  if (problems.length > 0) throw new BadRequestException(`Invalid order: ${problems.join('; ')}.`);
  return { customerId: customerId as string, amount: amount as number };
}

function hasAtMostTwoDecimals(value: number): boolean {
  const cents = value * 100;
  return Math.abs(cents - Math.round(cents)) < 1e-6;
}
