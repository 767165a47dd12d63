//! The console's team over the domain.

use super::*;

#[async_trait]
impl TeamConsole for PgConsole {
    async fn team(
        &self,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<(Vec<Member>, Vec<PendingInvitation>)> {
        let pool = &self.state.pool;
        let members = team::members(pool, merchant_id).await.map_err(failed)?;
        let pending = team::pending(pool, merchant_id).await.map_err(failed)?;
        Ok((
            members
                .into_iter()
                .filter_map(|member| {
                    Some(Member {
                        role: Role::parse(&member.role)?,
                        id: member.id.into(),
                        email: member.email,
                        joined_at: member.created_at,
                    })
                })
                .collect(),
            pending
                .into_iter()
                .map(|(id, email, role, expires_at)| PendingInvitation {
                    role,
                    id: id.into(),
                    email,
                    expires_at,
                })
                .collect(),
        ))
    }

    async fn invitation(&self, token: &str) -> ConsoleResult<Option<(String, Role)>> {
        team::invitation(&self.state.pool, token)
            .await
            .map_err(failed)
    }

    async fn security(&self, user: &CurrentUser) -> ConsoleResult<Security> {
        let state = &self.state;
        let status = two_factor::status(&state.pool, &user.id)
            .await
            .map_err(failed)?;
        let enrolment = match status.confirmed_at {
            Some(_) => None,
            None => two_factor::enrolment(&state.pool, &state.sealer, &user.id, &user.email)
                .await
                .map_err(failed)?
                .map(|enrolment| Enrolment {
                    secret: enrolment.secret,
                    qr_svg: enrolment.qr_svg,
                }),
        };
        let required = match &user.merchant_id {
            Some(merchant_id) => two_factor::required(&state.pool, merchant_id)
                .await
                .map_err(failed)?,
            None => false,
        };
        Ok(Security {
            enrolled_at: status.confirmed_at,
            recovery_codes_left: status.recovery_codes_left,
            enrolment,
            required,
        })
    }
}
