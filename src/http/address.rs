//! Postal addresses in requests: `line1` (or its alias `street1`), `city`, `postalCode`
//! and an ISO 3166-1 alpha-2 `country` required; `name`, `line2`, `region` optional.
//! Errors name the field under the caller's prefix (`shippingAddresses[0].line1`).

use serde::Deserialize;
use serde_json::{json, Value};
use storage::AddressRecord;

use super::body::Field;
use super::error::ApiError;

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(rename_all = "camelCase")]
pub struct AddressInput {
    #[serde(default)]
    name: Field<String>,
    #[serde(default)]
    line1: Field<String>,
    #[serde(default)]
    street1: Field<String>,
    #[serde(default)]
    line2: Field<String>,
    #[serde(default)]
    city: Field<String>,
    #[serde(default)]
    region: Field<String>,
    #[serde(default)]
    postal_code: Field<String>,
    #[serde(default)]
    country: Field<String>,
}

/// ISO 3166-1 alpha-2 codes (officially assigned).
const COUNTRIES: &str = "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ \
BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET \
FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR \
IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN \
MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY \
QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR \
TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW";

fn line(
    prefix: &str,
    field: &str,
    v: Field<String>,
    required: bool,
) -> Result<Option<String>, ApiError> {
    let path = format!("{prefix}.{field}");
    match v {
        Field::Value(s) if !s.trim().is_empty() => {
            if s.chars().count() > 200 {
                return Err(ApiError::validation(
                    path,
                    format!("{field} must be at most 200 characters."),
                ));
            }
            Ok(Some(s.trim().to_string()))
        }
        _ if required => Err(ApiError::validation(
            path.clone(),
            format!("{path} is required."),
        )),
        _ => Ok(None),
    }
}

impl AddressInput {
    /// Validates into a stored address; `prefix` is the field path of this address.
    pub fn validate(self, prefix: &str) -> Result<AddressRecord, ApiError> {
        let line1_value = match (self.line1, self.street1) {
            (Field::Value(l), _) => Field::Value(l),
            (_, street) => street,
        };
        let line1 = line(prefix, "line1", line1_value, true)?.unwrap_or_default();
        let city = line(prefix, "city", self.city, true)?.unwrap_or_default();
        let postal_code = line(prefix, "postalCode", self.postal_code, true)?.unwrap_or_default();
        let country = line(prefix, "country", self.country, true)?
            .unwrap_or_default()
            .to_ascii_uppercase();
        if country.len() != 2 || !COUNTRIES.split(' ').any(|c| c == country) {
            return Err(ApiError::validation(
                format!("{prefix}.country"),
                "country must be an ISO 3166-1 alpha-2 code such as US or DE.",
            ));
        }
        Ok(AddressRecord {
            name: line(prefix, "name", self.name, false)?,
            line1,
            line2: line(prefix, "line2", self.line2, false)?,
            city,
            region: line(prefix, "region", self.region, false)?,
            postal_code,
            country,
        })
    }
}

pub fn to_json(a: &AddressRecord) -> Value {
    json!({
        "name": a.name, "line1": a.line1, "line2": a.line2, "city": a.city,
        "region": a.region, "postalCode": a.postal_code, "country": a.country,
    })
}

pub fn schema() -> Value {
    let s = |d: &str| json!({"type": "string", "description": d});
    let opt = |d: &str| json!({"type": ["string", "null"], "description": d});
    json!({
        "type": "object",
        "required": ["line1", "city", "postalCode", "country"],
        "properties": {
            "name": opt("Recipient"),
            "line1": s("Street line; the alias street1 is accepted in requests"),
            "line2": opt("Optional second line"),
            "city": s("City"),
            "region": opt("State or region code"),
            "postalCode": s("Postal code"),
            "country": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "ISO 3166-1 alpha-2"},
        }
    })
}

/// A postal address as the API returns it (every key present; absent ones are null).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddressOut<'a> {
    name: Option<&'a str>,
    line1: &'a str,
    line2: Option<&'a str>,
    city: &'a str,
    region: Option<&'a str>,
    postal_code: &'a str,
    country: &'a str,
}

pub fn address_out(a: &AddressRecord) -> AddressOut<'_> {
    AddressOut {
        name: a.name.as_deref(),
        line1: &a.line1,
        line2: a.line2.as_deref(),
        city: &a.city,
        region: a.region.as_deref(),
        postal_code: &a.postal_code,
        country: &a.country,
    }
}
