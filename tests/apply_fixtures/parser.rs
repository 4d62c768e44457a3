//! A small recursive-descent parser for arithmetic expressions with variables.
//!
//! Test fixture for the apply-edit merge; it is not built by anything.

use std::collections::HashMap;
use std::fmt;

/// A token of the input.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Number(f64),
    Ident(String),
    Plus,
    Minus,
    Star,
    Slash,
    Caret,
    LParen,
    RParen,
    Comma,
}

/// Where parsing failed, with a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub offset: usize,
    pub message: String,
}

impl ParseError {
    fn new(offset: usize, message: impl Into<String>) -> Self {
        ParseError { offset, message: message.into() }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at {}: {}", self.offset, self.message)
    }
}

impl std::error::Error for ParseError {}

/// An expression tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Num(f64),
    Var(String),
    Neg(Box<Expr>),
    Bin(Box<Expr>, Op, Box<Expr>),
    Call(String, Vec<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

impl Op {
    /// Binding power: higher binds tighter.
    pub fn precedence(self) -> u8 {
        match self {
            Op::Add | Op::Sub => 1,
            Op::Mul | Op::Div => 2,
            Op::Pow => 3,
        }
    }

    pub fn right_assoc(self) -> bool {
        matches!(self, Op::Pow)
    }

    fn apply(self, a: f64, b: f64) -> f64 {
        match self {
            Op::Add => a + b,
            Op::Sub => a - b,
            Op::Mul => a * b,
            Op::Div => a / b,
            Op::Pow => a.powf(b),
        }
    }
}

/// Split `src` into tokens with their byte offsets.
pub fn tokenize(src: &str) -> Result<Vec<(usize, Token)>, ParseError> {
    let mut out = Vec::new();
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let tok = match c {
            '+' => Token::Plus,
            '-' => Token::Minus,
            '*' => Token::Star,
            '/' => Token::Slash,
            '^' => Token::Caret,
            '(' => Token::LParen,
            ')' => Token::RParen,
            ',' => Token::Comma,
            '0'..='9' | '.' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                    i += 1;
                }
                let text = &src[start..i];
                let value = text.parse::<f64>().map_err(|_| ParseError::new(start, "bad number"))?;
                out.push((start, Token::Number(value)));
                continue;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                out.push((start, Token::Ident(src[start..i].to_string())));
                continue;
            }
            other => return Err(ParseError::new(i, format!("unexpected {:?}", other))),
        };
        out.push((i, tok));
        i += 1;
    }
    Ok(out)
}

/// A parser over a token list.
pub struct Parser {
    tokens: Vec<(usize, Token)>,
    pos: usize,
    end: usize,
}

impl Parser {
    pub fn new(src: &str) -> Result<Self, ParseError> {
        Ok(Parser { tokens: tokenize(src)?, pos: 0, end: src.len() })
    }

    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(_, t)| t)
    }

    fn offset(&self) -> usize {
        self.tokens.get(self.pos).map(|(o, _)| *o).unwrap_or(self.end)
    }

    fn bump(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.pos).map(|(_, t)| t.clone());
        self.pos += 1;
        t
    }

    fn expect(&mut self, want: Token) -> Result<(), ParseError> {
        match self.bump() {
            Some(ref t) if *t == want => Ok(()),
            Some(t) => Err(ParseError::new(self.offset(), format!("expected {:?}, got {:?}", want, t))),
            None => Err(ParseError::new(self.end, format!("expected {:?} at end", want))),
        }
    }

    /// Parse a whole expression; trailing tokens are an error.
    pub fn parse(&mut self) -> Result<Expr, ParseError> {
        let e = self.expr(0)?;
        if self.pos < self.tokens.len() {
            return Err(ParseError::new(self.offset(), "trailing input"));
        }
        Ok(e)
    }

    fn expr(&mut self, min_prec: u8) -> Result<Expr, ParseError> {
        let mut lhs = self.unary()?;
        loop {
            let op = match self.peek() {
                Some(Token::Plus) => Op::Add,
                Some(Token::Minus) => Op::Sub,
                Some(Token::Star) => Op::Mul,
                Some(Token::Slash) => Op::Div,
                Some(Token::Caret) => Op::Pow,
                _ => break,
            };
            if op.precedence() < min_prec {
                break;
            }
            self.bump();
            let next = if op.right_assoc() { op.precedence() } else { op.precedence() + 1 };
            let rhs = self.expr(next)?;
            lhs = Expr::Bin(Box::new(lhs), op, Box::new(rhs));
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        if let Some(Token::Minus) = self.peek() {
            self.bump();
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        let at = self.offset();
        match self.bump() {
            Some(Token::Number(v)) => Ok(Expr::Num(v)),
            Some(Token::Ident(name)) => {
                if let Some(Token::LParen) = self.peek() {
                    self.bump();
                    let mut args = Vec::new();
                    if let Some(Token::RParen) = self.peek() {
                        self.bump();
                        return Ok(Expr::Call(name, args));
                    }
                    loop {
                        args.push(self.expr(0)?);
                        match self.bump() {
                            Some(Token::Comma) => continue,
                            Some(Token::RParen) => break,
                            _ => return Err(ParseError::new(self.offset(), "expected , or )")),
                        }
                    }
                    Ok(Expr::Call(name, args))
                } else {
                    Ok(Expr::Var(name))
                }
            }
            Some(Token::LParen) => {
                let e = self.expr(0)?;
                self.expect(Token::RParen)?;
                Ok(e)
            }
            Some(t) => Err(ParseError::new(at, format!("unexpected {:?}", t))),
            None => Err(ParseError::new(at, "unexpected end of input")),
        }
    }
}

/// Evaluate an expression with the given variables.
pub fn eval(e: &Expr, vars: &HashMap<String, f64>) -> Result<f64, String> {
    Ok(match e {
        Expr::Num(v) => *v,
        Expr::Var(name) => *vars.get(name).ok_or_else(|| format!("unknown variable {}", name))?,
        Expr::Neg(inner) => -eval(inner, vars)?,
        Expr::Bin(a, op, b) => op.apply(eval(a, vars)?, eval(b, vars)?),
        Expr::Call(name, args) => {
            let vals = args.iter().map(|a| eval(a, vars)).collect::<Result<Vec<_>, _>>()?;
            match (name.as_str(), vals.as_slice()) {
                ("sqrt", [x]) => x.sqrt(),
                ("max", [x, y]) => x.max(*y),
                ("min", [x, y]) => x.min(*y),
                _ => return Err(format!("unknown function {}/{}", name, vals.len())),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Expr {
        Parser::new(src).unwrap().parse().unwrap()
    }

    #[test]
    fn precedence() {
        let vars = HashMap::new();
        assert_eq!(eval(&parse("1 + 2 * 3"), &vars), Ok(7.0));
        assert_eq!(eval(&parse("2 ^ 3 ^ 2"), &vars), Ok(512.0));
    }

    #[test]
    fn variables_and_calls() {
        let mut vars = HashMap::new();
        vars.insert("x".to_string(), 9.0);
        assert_eq!(eval(&parse("sqrt(x) - max(1, 2)"), &vars), Ok(1.0));
    }

    #[test]
    fn errors_have_offsets() {
        let err = Parser::new("1 + $").err().unwrap();
        assert_eq!(err.offset, 4);
    }
}
