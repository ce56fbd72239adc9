//! Conversion of TOML values into the engine's parameter values.

use hexforge_core::tile::ParamValue;

/// A TOML value as a parameter; tables and dates are not parameters.
pub fn param(v: &toml::Value) -> Result<ParamValue, &'static str> {
    Ok(match v {
        toml::Value::Boolean(b) => ParamValue::Bool(*b),
        toml::Value::Integer(i) => ParamValue::Int(*i),
        toml::Value::Float(f) => ParamValue::Float(*f),
        toml::Value::String(s) => ParamValue::Str(s.clone()),
        toml::Value::Array(a) => ParamValue::List(a.iter().map(param).collect::<Result<_, _>>()?),
        toml::Value::Table(_) => {
            return Err(
                "a table cannot be a parameter value: write a number, text in quotes, true/false or a list",
            );
        }
        toml::Value::Datetime(_) => {
            return Err("a date cannot be a parameter value: put it in quotes");
        }
    })
}
