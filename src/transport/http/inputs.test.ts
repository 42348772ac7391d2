import { describe, expect, it } from 'vitest';
import {
  createWebhookBody,
  identifyUsersBody,
  listProfilesQuery,
  read,
  revokeKeyBody,
  updateSegmentBody,
  updateWebhookBody,
} from './inputs.js';

const refused = (field: string) => expect.objectContaining({ code: 'invalid_argument', field });

describe('gateway inputs', () => {
  it('turns a documented users body into the typed input, ids given as digits too', () => {
    expect(
      read(identifyUsersBody, {
        project_id: '7',
        source_label: 'chat',
        users: [{ user_id: 'u1', text: 'hi', attributes: { plan: 'pro' }, timestamp: '2026-01-02T03:04:05Z' }],
        ignored: true,
      }),
    ).toEqual({
      projectId: 7,
      sourceLabel: 'chat',
      users: [{ userId: 'u1', text: 'hi', attributes: { plan: 'pro' }, timestamp: '2026-01-02T03:04:05Z' }],
    });
  });

  it.each([
    [[1], 'body'],
    [{ project_id: 0, users: [] }, 'project_id'],
    [{ project_id: 1 }, 'users'],
    [{ project_id: 1, users: 'u1' }, 'users'],
    [{ project_id: 1, users: [7] }, 'users[0]'],
    [
      {
        project_id: 1,
        users: [
          { user_id: 'a', text: 'x' },
          { user_id: 5, text: 'y' },
        ],
      },
      'users[1].user_id',
    ],
    [{ project_id: 1, users: [{ user_id: 'a', text: 'x', attributes: [1] }] }, 'users[0].attributes'],
    [{ project_id: 1, users: [{ user_id: 'a', text: 'x', timestamp: 1700000000 }] }, 'users[0].timestamp'],
  ])('refuses users body %j naming %s', (body, field) => {
    expect(() => read(identifyUsersBody, body)).toThrow(refused(field));
  });

  it('keeps an attribute named __proto__ for the domain to refuse (JSON.parse makes it an own key)', () => {
    const body = JSON.parse(
      '{"project_id": 1, "users": [{"user_id": "a", "text": "x", "attributes": {"__proto__": "v"}}]}',
    );
    expect(Object.keys(read(identifyUsersBody, body).users[0].attributes!)).toEqual(['__proto__']);
  });

  it('reads query strings as numbers, an empty one as absent', () => {
    expect(read(listProfilesQuery, { project_id: '3', limit: '', churn_risk_gte: '.5', min_messages: '2' })).toEqual({
      projectId: 3,
      churnRiskGte: 0.5,
      minMessages: 2,
    });
    expect(read(listProfilesQuery, { project_id: '3', sort: 'churn_risk' })).toEqual({
      projectId: 3,
      sort: 'churn_risk',
    });
    expect(() => read(listProfilesQuery, { project_id: '3', limit: '1e3' })).toThrow(refused('limit'));
    expect(() => read(listProfilesQuery, { project_id: '3', churn_risk_lte: 'high' })).toThrow(
      refused('churn_risk_lte'),
    );
  });

  it('keeps what an update leaves out absent, and null where null means "clear"', () => {
    expect(read(updateSegmentBody, { name: 'n' })).toEqual({ name: 'n' });
    expect(read(updateSegmentBody, { description: null })).toEqual({ description: null });
    expect(read(updateWebhookBody, { secret: null, is_active: false })).toEqual({ secret: null, isActive: false });
    expect(() => read(updateWebhookBody, { is_active: 'yes' })).toThrow(refused('is_active'));
    expect(() => read(updateSegmentBody, { name: null })).toThrow(refused('name'));
  });

  it('names the element of a list that has the wrong type', () => {
    expect(() => read(createWebhookBody, { url: 'https://a.example', events: ['user_added', 3] })).toThrow(
      refused('events[1]'),
    );
    expect(() => read(revokeKeyBody, { api_key: 12 })).toThrow(refused('api_key'));
  });
});
